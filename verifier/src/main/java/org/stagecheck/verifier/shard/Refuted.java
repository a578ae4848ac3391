package org.stagecheck.verifier.shard;

import org.stagecheck.verifier.Code;

/**
 * A rule found a partial value where it may not go: carries the finding out of the (recursive)
 * evaluation of an expression to the stage, which reports it once. No stack trace: it is control
 * flow, not a fault.
 */
final class Refuted extends RuntimeException {
    final Code code;
    final String what;
    final Origin origin;

    Refuted(Code code, String what, Origin origin) {
        super(what, null, false, false);
        this.code = code;
        this.what = what;
        this.origin = origin;
    }
}
