export * from './connect.js';
export * from './document-locks.js';
export * from './errors.js';
export * from './indexes.js';
export * from './outbox-store.js';
export * from './versioned-collection.js';
