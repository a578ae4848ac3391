package org.stagecheck.golden.debug;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.stagecheck.tensor.compare.FloatFormat;
import org.stagecheck.backend.MathMode;
import org.stagecheck.golden.derive.StageBound;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.StageFault;
import org.stagecheck.interp.Stepper;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * Rounding or bug (docs/debugging.md, "Rounding or bug"): one stage evaluated on one set of
 * inputs three ways, the reference (f32), the backend (its recorded output) and float64, with the
 * stage's derived bound ({@link StageBound}): how far any conforming f32 evaluation may be from the
 * float64 value. The verdict:
 * <ul>
 *   <li>{@link Classification#WITHIN_ROUNDING}: every backend element is within the bound;</li>
 *   <li>{@link Classification#ILL_CONDITIONED}: it is not, but the reference is itself far from
 *       float64 (worst relative error above {@value #ILL_ROUNDOFFS} unit roundoffs of the output dtype) and the backend's worst error is
 *       no more than {@value #ILL_FACTOR} times the reference's: the stage loses the digits, not the
 *       backend;</li>
 *   <li>{@link Classification#BEYOND_BOUND}: otherwise, a bug.</li>
 * </ul>
 * Data-moving stages (Load, Store, Recv) are exact in every conforming implementation: their bound
 * is 0 and the reference is the float64 value.
 *
 * @param stageId        the stage
 * @param kind           its kind
 * @param classification the verdict
 * @param ports          the figures of each output port
 * @param warnings       integer outputs the bound says may come out either way
 * @param mode           the math mode the bound allows the backend
 */
public record ThreeWay(String stageId, String kind, Classification classification, List<Port> ports, List<String> warnings, MathMode mode) {
    /** "Far from float64": a worst relative error above this many unit roundoffs of the output dtype. */
    static final double ILL_ROUNDOFFS = 64;
    static final double ILL_FACTOR = 4;

    public ThreeWay {
        ports = List.copyOf(ports);
        warnings = List.copyOf(warnings);
    }

    public enum Classification {
        WITHIN_ROUNDING, BEYOND_BOUND, ILL_CONDITIONED;

        public String words() {
            return switch (this) {
                case WITHIN_ROUNDING -> "backend within rounding";
                case BEYOND_BOUND -> "backend beyond its bound";
                case ILL_CONDITIONED -> "reference and backend both far from float64 (ill-conditioned)";
            };
        }
    }

    /**
     * One output port.
     *
     * @param buffer             the port's buffer
     * @param maxBound           the largest per-element bound
     * @param referenceMaxError  max |reference - float64|
     * @param backendMaxError    max |backend - float64|
     * @param referenceMaxRel    max |reference - float64| / |float64|
     * @param backendMaxRel      max |backend - float64| / |float64|
     * @param backendOverBound   backend elements beyond their bound
     * @param referenceOverBound reference elements beyond their bound (0 unless the bound is unsound)
     * @param elements           elements compared
     * @param dtype              the port's dtype
     */
    public record Port(String buffer, DType dtype, double maxBound, double referenceMaxError, double backendMaxError,
                       double referenceMaxRel, double backendMaxRel, long backendOverBound, long referenceOverBound, long elements) {
        /** Whether the reference itself is far from float64 on this port. */
        public boolean referenceFar() {
            return dtype.isFloating() && referenceMaxRel > ILL_ROUNDOFFS * FloatFormat.of(dtype).unitRoundoff();
        }

        public String text() {
            return String.format(Locale.ROOT, "%s: bound %.3g; reference error %.3g (rel %.3g); backend error %.3g (rel %.3g); "
                            + "%d of %d backend element(s) beyond the bound", buffer, maxBound, referenceMaxError, referenceMaxRel,
                    backendMaxError, backendMaxRel, backendOverBound, elements);
        }
    }

    /**
     * The three-way comparison of {@code stage} on {@code inputs} (buffer name to value: what the
     * backend computed the stage from).
     *
     * @param backendOutputs the backend's value of each output port
     * @throws StageFault when the stage cannot be evaluated on these inputs
     */
    public static ThreeWay of(Program program, Stage stage, Map<String, Tensor> inputs, Map<String, Long> params,
                              List<Tensor> backendOutputs, MathMode mode) throws StageFault {
        String kind = TraceDiff.kindName(stage);
        boolean moves = switch (stage.kind()) {
            case StageKind.Load l -> true;
            case StageKind.Store s -> true;
            case StageKind.Recv r -> true;
            case StageKind.AllReduce a -> false;
            case StageKind.Compute c -> false;
            case StageKind.Scalar s -> false;
        };
        if (moves) {
            throw new StageFault("a data-moving stage is judged by dataMovement(), not from buffers");
        }
        List<Tensor> reference = new ArrayList<>();
        try (Stepper s = new Stepper(program, Precision.F32, params)) {
            for (Map.Entry<String, Tensor> e : inputs.entrySet()) {
                s.write(e.getKey(), e.getValue());
            }
            s.run(stage);
            for (String out : stage.outs()) {
                reference.add(s.read(out));
            }
        }
        StageBound.Result b = StageBound.of(program, stage, inputs, params, mode);
        List<Port> ports = new ArrayList<>();
        for (int p = 0; p < stage.outs().size(); p++) {
            boolean integer = !reference.get(p).dtype().isFloating();
            ports.add(port(stage.outs().get(p), b.values().get(p), integer ? null : b.bounds().get(p), reference.get(p),
                    backendOutputs.get(p), !b.warnings().isEmpty()));
        }
        return new ThreeWay(stage.id(), kind, classify(ports), ports, b.warnings(), mode);
    }

    /** A data-moving stage: exact, so the reference's value is the float64 one and the bound is 0. */
    public static ThreeWay dataMovement(Stage stage, List<Tensor> referenceOutputs, List<Tensor> backendOutputs, MathMode mode) {
        List<Port> ports = new ArrayList<>();
        for (int p = 0; p < referenceOutputs.size(); p++) {
            ports.add(port(stage.outs().get(p), referenceOutputs.get(p), null, referenceOutputs.get(p), backendOutputs.get(p), false));
        }
        return new ThreeWay(stage.id(), TraceDiff.kindName(stage), classify(ports), ports, List.of(), mode);
    }

    private static Port port(String buffer, Tensor truth, Tensor bound, Tensor ref, Tensor back, boolean integerUncertain) {
        long n = truth.size();
        if (back.size() != n || back.dtype() != ref.dtype()) {
            return new Port(buffer, ref.dtype(), 0, 0, Double.POSITIVE_INFINITY, 0, Double.POSITIVE_INFINITY, n, 0, n);
        }
        double maxBound = 0;
        double refErr = 0;
        double backErr = 0;
        double refRel = 0;
        double backRel = 0;
        long backOver = 0;
        long refOver = 0;
        for (long i = 0; i < n; i++) {
            double t = truth.getDouble(i);
            double bd = bound == null ? (integerUncertain ? Double.POSITIVE_INFINITY : 0) : bound.getDouble(i);
            maxBound = Math.max(maxBound, bd);
            double er = error(ref.getDouble(i), t);
            double eb = error(back.getDouble(i), t);
            refErr = Math.max(refErr, er);
            backErr = Math.max(backErr, eb);
            refRel = Math.max(refRel, relative(er, t));
            backRel = Math.max(backRel, relative(eb, t));
            double slack = bd * (1 + 1e-9);
            if (!(eb <= slack)) {
                backOver++;
            }
            if (!(er <= slack)) {
                refOver++;
            }
        }
        return new Port(buffer, ref.dtype(), maxBound, refErr, backErr, refRel, backRel, backOver, refOver, n);
    }

    private static double error(double x, double t) {
        if (Double.isNaN(t) || Double.isInfinite(t)) {
            return Double.compare(x, t) == 0 || (Double.isNaN(x) && Double.isNaN(t)) ? 0 : Double.POSITIVE_INFINITY;
        }
        return Double.isFinite(x) ? Math.abs(x - t) : Double.POSITIVE_INFINITY;
    }

    private static double relative(double err, double t) {
        if (err == 0) {
            return 0;
        }
        return t == 0 ? Double.POSITIVE_INFINITY : err / Math.abs(t);
    }

    static Classification classify(List<Port> ports) {
        if (ports.stream().allMatch(p -> p.backendOverBound() == 0)) {
            return Classification.WITHIN_ROUNDING;
        }
        boolean ill = ports.stream().filter(p -> p.backendOverBound() > 0)
                .allMatch(p -> p.referenceFar() && p.backendMaxError() <= ILL_FACTOR * p.referenceMaxError());
        return ill ? Classification.ILL_CONDITIONED : Classification.BEYOND_BOUND;
    }

    /** One line: the verdict and the worst port's figures. */
    public String summary() {
        StringBuilder b = new StringBuilder(classification.words()).append(" at stage '").append(stageId).append("' (").append(kind).append(")");
        for (Port p : ports) {
            b.append("\n    ").append(p.text());
        }
        return b.toString();
    }
}
