package org.stagecheck.spec.json;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;

/**
 * The one layout of canonical files: objects one field per line with two-space indentation,
 * arrays on one line (shapes and sites stay short), {@code "key": value}. Part of the canonical
 * form: changing it changes every program hash.
 */
final class CanonicalPrinter extends DefaultPrettyPrinter {
    CanonicalPrinter() {
        super(Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withArrayEmptySeparator("")
                .withObjectEmptySeparator(""));
        indentObjectsWith(new DefaultIndenter("  ", "\n"));
        indentArraysWith(DefaultPrettyPrinter.FixedSpaceIndenter.instance);
    }

    private CanonicalPrinter(CanonicalPrinter base) {
        super(base);
    }

    @Override
    public DefaultPrettyPrinter createInstance() {
        return new CanonicalPrinter(this);
    }
}
