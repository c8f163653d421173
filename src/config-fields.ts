/** The field kinds of the environment schema (src/config.ts): a default and a description each. */
import { Type } from '@sinclair/typebox';

export const Bool = (def: boolean, description: string) => Type.Boolean({ default: def, description });
export const Str = (description: string, def?: string) =>
  def === undefined ? Type.Optional(Type.String({ description })) : Type.String({ default: def, description });
export const Int = (def: number, description: string, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  Type.Integer({ default: def, minimum: min, maximum: max, description });
