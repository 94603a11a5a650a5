/** The pure agent core: seeds 000, 002 and 004. Safe to import from workflow code. */
export * from './entries';
export * from './errors';
export * from './agent-state';
export * from './agent-config';
export * from './input';
export * from './run-state';
export * from './step-io';
export * from './snapshot';
export * from './agent';
export * from './live-context';
export * from './message-delta';
export * from './message-assembler';
export * from './model';
export * from './tool-spec';
