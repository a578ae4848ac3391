package org.stagecheck.spec.json;

/**
 * Places a diagnostic's field (a JSON pointer such as {@code /stages/3/ins/0}, as
 * {@link org.stagecheck.spec.diag.Diagnostic#field()} holds) in its source file.
 *
 * <pre>{@code
 * ProgramFile pf = ProgramFile.read(Path.of("examples/chain.json"));
 * for (Diagnostic d : new Validator().validate(pf.program())) {
 *     System.out.println(pf.locate(d.field()).prefix() + ": " + d.render()); // chain.json:12:7: ...
 * }
 * }</pre>
 */
@FunctionalInterface
public interface SourceLocator {
    /** A locator that knows no file: every field is at {@link SourcePosition#UNKNOWN}. */
    SourceLocator NONE = field -> SourcePosition.UNKNOWN;

    /** Where {@code field} (null: the file as a whole) lies. */
    SourcePosition locate(String field);
}
