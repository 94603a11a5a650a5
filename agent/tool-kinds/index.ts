export * from './tool-kind';
export * from './registry';
