package org.stagecheck.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** Machine-readable output: one pretty-printed JSON document per command run. */
final class Json {
    private Json() {}

    @FunctionalInterface
    interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    static void print(PrintWriter out, Body body) {
        StringWriter sw = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(sw)) {
            g.useDefaultPrettyPrinter();
            body.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println(sw);
        out.flush();
    }
}
