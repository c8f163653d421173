#!/usr/bin/env node
// The service-api command. Sources are TypeScript run through tsx's loader (a runtime dependency).
import { register } from 'tsx/esm/api';

register();
await import('../src/main/cli.ts');
