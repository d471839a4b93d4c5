/** Plates as read: normalising, look-alike classes and folding; the watch-list index built on them. */
export * from './lookalike';
