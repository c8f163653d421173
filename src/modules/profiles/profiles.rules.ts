/** Profile errors and the batch policy rule (scheduleSettings.batchPolicy). */
import { Value } from '@sinclair/typebox/value';
import { AppError, type FieldIssue } from '../../platform/errors.js';
import { isValidTimeZone } from '../../platform/time/zoned-time.js';
import { BatchPolicy, type BatchPolicyT } from './profiles.schemas.js';

export const invalidProfile = (message: string, fields: FieldIssue[]) =>
  new AppError('invalid_public_publishing_profile_request', {
    message,
    fields,
  });
export const profileNotFound = (id: string) =>
  new AppError('publishing_profile_not_found', {
    message: `No publishing profile ${id} in the principal organization.`,
  });

/** Validates scheduleSettings.batchPolicy as a batch policy and fills its defaults. */
export function normalizeBatchPolicy(raw: unknown): BatchPolicyT {
  const value = Value.Default(BatchPolicy, Value.Clone(raw)) as BatchPolicyT;
  const first = [...Value.Errors(BatchPolicy, value)][0];
  if (first) {
    const path = ['scheduleSettings', 'batchPolicy', ...first.path.split('/').filter(Boolean)];
    throw invalidProfile(`scheduleSettings.batchPolicy${first.path.replace(/\//g, '.')}: ${first.message}.`, [{ path, source: 'body' }]);
  }
  value.slots.forEach((slot, i) => {
    const at = (f: string) => [
      {
        path: ['scheduleSettings', 'batchPolicy', 'slots', String(i), f],
        source: 'body' as const,
      },
    ];
    if (!isValidTimeZone(slot.timezone))
      throw invalidProfile(`Unknown time zone ${slot.timezone} in batch policy slot ${slot.id}.`, at('timezone'));
    if (slot.jitterSecondsMin > slot.jitterSecondsMax)
      throw invalidProfile(`jitterSecondsMin exceeds jitterSecondsMax in slot ${slot.id}.`, at('jitterSecondsMin'));
  });
  if (new Set(value.slots.map((s) => s.id)).size !== value.slots.length)
    throw invalidProfile('Batch policy slot ids must be unique.', [{ path: ['scheduleSettings', 'batchPolicy', 'slots'], source: 'body' }]);
  return value;
}
