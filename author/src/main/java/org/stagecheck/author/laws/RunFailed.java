package org.stagecheck.author.laws;

/** A run that could not be made or faulted: the law fails with this message. */
final class RunFailed extends Exception {
    RunFailed(String message) {
        super(message);
    }
}
