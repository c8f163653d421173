/** The platform pieces every publishing service uses (a Pick of AppDeps, not the whole). */
import type { AppDeps } from '../app-deps.js';

export type PublishingDeps = Pick<AppDeps, 'config' | 'database' | 'counters' | 'jobs' | 'events' | 'clock' | 'metrics'>;
