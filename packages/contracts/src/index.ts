export * from './common.js';
export * from './employee.js';
export * from './events.js';
export * from './shapes.js';
export * from './address-rules.js';
