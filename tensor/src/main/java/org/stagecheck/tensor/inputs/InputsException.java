package org.stagecheck.tensor.inputs;

/**
 * Inputs that cannot be read or bound: a directory that is not there, a manifest that is not
 * readable, a file that leads out of the directory, a tensor without a file, a file of another
 * dtype or shape, a parameter out of range. The message is one line a person can act on, naming
 * the file, tensor or parameter; the command line reports it as bad input (exit 2).
 */
public final class InputsException extends Exception {
    public InputsException(String message) {
        super(message);
    }
}
