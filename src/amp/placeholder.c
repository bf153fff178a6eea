/* Placeholder so the library has a source until the simulator lands. */
int fplab_amp_placeholder_;
