export * from './widget';
export * from './memory-notebook';
export * from './rebuild';
