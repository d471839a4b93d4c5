/** Plates as read: normalising, look-alike classes and folding; the watch-list index built on them, and its preview. */
export * from './lookalike';
export * from './plate-list';
export * from './preview';
