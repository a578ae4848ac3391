/**
 * Reading a run's inputs from a directory (docs/format.md, "Inputs manifest"): the manifest
 * {@code inputs.json} or one {@code .npy} file per tensor, every file kept inside the directory
 * and its header checked against the program before its data is read, and the whole checked by
 * {@link org.stagecheck.backend.Bindings#check}. {@link org.stagecheck.tensor.inputs.Inputs#read}
 * is the one call; the command line's {@code --inputs} uses the same pieces.
 */
package org.stagecheck.tensor.inputs;
