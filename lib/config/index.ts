/** Node configurations: each saved node brought to the current shape (migrate), its options read with the table's rules, and a wrong one said at deploy. */
export * from './migrate';
export * from './node-options';
export * from './wrong-options';
