package org.stagecheck.author;

/** A model spec file that cannot be read or describes an impossible model; the message says why. */
public final class ModelSpecException extends Exception {
    public ModelSpecException(String message) {
        super(message);
    }
}
