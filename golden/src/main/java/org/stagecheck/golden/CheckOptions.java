package org.stagecheck.golden;

import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.compare.Policy;

/**
 * How cases are checked, beyond where the values under test come from.
 *
 * @param policy      the policy every output is judged by instead of its recorded one, or null
 *                    (each output's recorded policy)
 * @param programHash the canonical hash ({@link ProgramCodec#hash}) of the program under test, the
 *                    one the backend was built from, or null (not checked): a case recorded for
 *                    another program is {@link CaseResult.Status#PROGRAM_DIFFERS}, not compared
 */
public record CheckOptions(Policy policy, String programHash) {
    /** Each output's recorded policy; the program under test not checked. */
    public static CheckOptions defaults() {
        return new CheckOptions(null, null);
    }

    /** These options with {@code policy} for every output (null: the recorded ones). */
    public CheckOptions withPolicy(Policy override) {
        return new CheckOptions(override, programHash);
    }

    /** These options requiring every case to have been recorded for {@code program}. */
    public CheckOptions withProgram(Program program) {
        return new CheckOptions(policy, new ProgramCodec().hash(program));
    }
}
