export * from './connect.js';
export * from './errors.js';
export * from './indexes.js';
export * from './versioned-collection.js';
