package org.stagecheck.tensor.inputs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.stagecheck.tensor.npy.IoMessages;

/**
 * A directory a run reads tensors from ({@code --inputs}, {@code --state-from}), named in
 * messages by {@code option} (e.g. {@code --inputs}). Every file read
 * from it must really be inside it: its real path (symbolic links resolved, in the file and in
 * every directory on the way) starts with the directory's real path. A link that leads out is
 * refused, naming the link (docs/format.md, "Inputs manifest").
 */
public record InputsDir(String option, Path dir) {
    /** The directory given to {@code option}: it must exist and be a directory. */
    public static InputsDir of(String option, Path dir) throws InputsException {
        if (!Files.exists(dir)) {
            throw new InputsException(option + " " + dir + ": no such directory");
        }
        if (!Files.isDirectory(dir)) {
            throw new InputsException(option + " " + dir + " is not a directory");
        }
        return new InputsDir(option, dir);
    }

    /** Checks {@code file} (under {@link #dir}) resolves inside; returns it. */
    public Path inside(Path file) throws InputsException {
        Path base;
        Path real;
        try {
            base = dir.toRealPath();
        } catch (IOException e) {
            throw new InputsException(option + " " + dir + ": " + IoMessages.reason(e));
        }
        try {
            real = file.toRealPath();
        } catch (IOException e) {
            if (Files.isSymbolicLink(file)) {
                throw new InputsException(file + " is a symbolic link to nothing readable (" + IoMessages.reason(e) + ")");
            }
            return file; // missing: the caller says so in its own words
        }
        if (!real.startsWith(base)) {
            throw new InputsException(linkOnTheWay(file) + " leads to " + real + ", outside the " + option
                    + " directory " + dir + "; stagecheck reads only files inside it");
        }
        return file;
    }

    /** The first symbolic link from {@code dir} down to {@code file}: what the user has to look at. */
    private Path linkOnTheWay(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        Path base = dir.toAbsolutePath().normalize();
        Path p = base;
        for (Path part : base.relativize(abs)) {
            p = p.resolve(part);
            if (Files.isSymbolicLink(p)) {
                return p;
            }
        }
        return Files.exists(file, LinkOption.NOFOLLOW_LINKS) ? file : abs;
    }
}
