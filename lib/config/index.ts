/** Node configurations by version: each saved node brought to the current shape. */
export * from './migrate';
export * from './node-options';
