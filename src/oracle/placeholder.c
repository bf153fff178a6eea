/* Placeholder so the library has a source until the oracles land. */
int fplab_oracle_placeholder_;
