package org.stagecheck.tensor.safetensors;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.stagecheck.tensor.npy.IoMessages;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * A file named by a model directory (an index's weight map, a fixed name) must be a plain name
 * inside it, and its real path, symbolic links resolved, must stay inside the directory's real
 * path: a link that leads elsewhere is refused, naming the link (as the inputs directory does).
 */
final class Confinement {
    private Confinement() {
    }

    /** True when {@code fileName} is one name with no separator, not {@code .} or {@code ..}. */
    static boolean plainName(String fileName) {
        return !fileName.isEmpty() && !fileName.equals(".") && !fileName.equals("..") && fileName.indexOf('/') < 0
                && fileName.indexOf('\\') < 0 && fileName.indexOf('\0') < 0;
    }

    /** {@code dir/fileName}, checked; a missing file is returned as is for the opener to report. */
    static Path inside(Path dir, String fileName) throws TensorFileException {
        if (!plainName(fileName)) {
            throw new TensorFileException(dir + ": '" + fileName + "' is not a plain file name inside the directory");
        }
        Path file = dir.resolve(fileName);
        Path base;
        try {
            base = dir.toRealPath();
        } catch (IOException e) {
            throw new TensorFileException(dir + ": " + IoMessages.reason(e));
        }
        Path real;
        try {
            real = file.toRealPath();
        } catch (IOException e) {
            if (Files.isSymbolicLink(file)) {
                throw new TensorFileException(file + " is a symbolic link to nothing readable (" + IoMessages.reason(e) + ")");
            }
            return file;
        }
        if (!real.startsWith(base)) {
            throw new TensorFileException(file + " leads to " + real + ", outside the model directory " + dir
                    + "; stagecheck reads only files inside it");
        }
        return file;
    }
}
