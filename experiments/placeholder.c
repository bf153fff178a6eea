/* Placeholder so the library has a source until the experiments land. */
int fplab_experiments_placeholder_;
