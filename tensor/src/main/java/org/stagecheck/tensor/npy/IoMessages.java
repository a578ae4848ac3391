package org.stagecheck.tensor.npy;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;

/**
 * Ordinary I/O problems in words a user reads as such ("permission denied", "no space left on
 * device"), never as a defect of stagecheck: one line, naming the file.
 */
public final class IoMessages {
    private IoMessages() {
    }

    /** E.g. {@code out/y.npy: permission denied}. */
    public static String describe(IOException e) {
        return (e instanceof FileSystemException f ? file(f) : "") + reason(e);
    }

    /** What went wrong, without the file: e.g. {@code permission denied}. */
    public static String reason(IOException e) {
        return switch (e) {
            case NoSuchFileException n -> "no such file or directory";
            case AccessDeniedException a -> "permission denied";
            case FileAlreadyExistsException x -> "already exists" + detail(x);
            case DirectoryNotEmptyException d -> "is a directory that is not empty";
            case NotDirectoryException d -> "is not a directory";
            case NotLinkException l -> "is not a symbolic link";
            case FileSystemLoopException l -> "is in a loop of symbolic links";
            case FileSystemException f -> f.getReason() != null ? lower(f.getReason()) : "input/output error";
            // IOException is an open hierarchy: any other kind says its own message
            default -> e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        };
    }

    private static String file(FileSystemException e) {
        if (e.getFile() == null) {
            return "";
        }
        return e.getFile() + (e.getOtherFile() == null ? "" : " -> " + e.getOtherFile()) + ": ";
    }

    private static String detail(FileSystemException e) {
        return e.getReason() == null ? "" : " (" + e.getReason() + ")";
    }

    private static String lower(String reason) {
        return reason.isEmpty() ? reason : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
    }
}
