package org.stagecheck.author.oracle;

/** A checkpoint directory the float64 oracle cannot read: the message names the file and what is wrong. */
public final class OracleInputException extends RuntimeException {
    public OracleInputException(String message) {
        super(message);
    }

    public OracleInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
