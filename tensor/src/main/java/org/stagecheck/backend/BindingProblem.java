package org.stagecheck.backend;

import org.stagecheck.spec.diag.Diagnostic;

/**
 * One reason a run's inputs cannot be run (docs/semantics.md, "Running a program"): what is
 * wrong ({@link #code}), which tensor or parameter ({@link #subject}), what the program expects
 * and what was found, and the sentence a person reads. {@link Bindings#check} makes them; every
 * backend turns them into the same {@link Diagnostic} with {@link #toDiagnostic()}.
 *
 * @param code     what is wrong
 * @param field    the JSON pointer into the program the problem is about ({@code /tensors/x}, {@code /params/pos})
 * @param subject  the tensor or parameter name as given
 * @param expected what the program declares (a dtype, a shape, a range), or null where nothing is expected
 * @param found    what the run was given (a dtype, a shape, a value), or null where nothing was given
 * @param message  one full sentence naming the subject, the expected and the found
 */
public record BindingProblem(Code code, String field, String subject, String expected, String found, String message) {

    /** What is wrong with a run's inputs; the name is the diagnostic code every backend reports. */
    public enum Code {
        /** A tensor of role input, weight or state has no bound value. */
        MISSING_INPUT,
        /** A value is bound to a name that is not a tensor of the program. */
        BINDING_UNKNOWN,
        /** A bound value's dtype is not the declared one (or it holds float64 values where none are taken). */
        BINDING_DTYPE,
        /** A bound value's shape is not the declared one. */
        BINDING_SHAPE,
        /** A declared parameter has no value. */
        PARAM_UNBOUND,
        /** A parameter's value is outside its declared range. */
        PARAM_OUT_OF_RANGE,
        /** A value is given for a name that is not a parameter of the program. */
        PARAM_UNKNOWN;

        /** Whether the problem is about a parameter (not a tensor). */
        public boolean isParam() {
            return switch (this) {
                case PARAM_UNBOUND, PARAM_OUT_OF_RANGE, PARAM_UNKNOWN -> true;
                case MISSING_INPUT, BINDING_UNKNOWN, BINDING_DTYPE, BINDING_SHAPE -> false;
            };
        }
    }

    /** The problem as a backend's fault before any stage runs. */
    public Diagnostic toDiagnostic() {
        return Diagnostic.atField(code.name(), field, message);
    }
}
