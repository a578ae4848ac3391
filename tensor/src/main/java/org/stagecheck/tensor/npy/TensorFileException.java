package org.stagecheck.tensor.npy;

/** A tensor file that cannot be read: the message names the file and what is wrong with it. */
public final class TensorFileException extends Exception {
    public TensorFileException(String message) {
        super(message);
    }

    public TensorFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
