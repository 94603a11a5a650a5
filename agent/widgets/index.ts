export * from './widget';
export * from './memory-notebook';
export * from './task-list';
export * from './registry';
export * from './rebuild';
