package org.stagecheck.author.hf;

import java.nio.file.Path;
import org.stagecheck.spec.validate.NameRules;

/**
 * The name of a checkpoint's model: its directory's file name, made a valid stagecheck name
 * ({@link NameRules}): path separators, control characters and unpaired surrogates become
 * {@code _}, the name is cut to {@link NameRules#MAX_LENGTH} characters, and a name that is
 * empty or only dots is {@code model}.
 */
final class ModelName {
    static final String FALLBACK = "model";

    private ModelName() {
    }

    static String of(Path modelDir) {
        Path file = modelDir.toAbsolutePath().normalize().getFileName();
        String raw = file == null ? "" : file.toString();
        if (raw.length() > NameRules.MAX_LENGTH) {
            raw = raw.substring(0, NameRules.MAX_LENGTH);
        }
        StringBuilder b = new StringBuilder(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            boolean control = NameRules.isControl(c);
            boolean unpaired = Character.isHighSurrogate(c) && (i + 1 == raw.length() || !Character.isLowSurrogate(raw.charAt(i + 1)))
                    || Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(raw.charAt(i - 1)));
            b.append(c == '/' || c == '\\' || control || unpaired ? '_' : c);
        }
        String name = b.toString();
        return NameRules.problem(name) == null ? name : FALLBACK;
    }
}
