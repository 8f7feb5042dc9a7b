#!/usr/bin/env node
// `docsift-daemon <command>`: the daemon runs from its TypeScript source through tsx (as `npm start`
// and the Docker image do), so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
await import(new URL('../src/main.ts', import.meta.url).href);
