package org.stagecheck.cuda.lower;

import java.util.List;

import org.stagecheck.spec.ir.Program;

/**
 * A program lowered to CUDA C: the kernels' source (without the header and host dispatcher,
 * which {@link CudaSource} adds), the kernels in launch order, the memory plan and the first
 * static fault (null when none).
 *
 * @param prefix the prefix of every kernel name, distinct per program of one source bundle
 */
public record LoweredProgram(Program program, String prefix, String kernelSource, List<Kernel> kernels,
                             MemoryPlan memory, StaticFault staticFault) {
    public LoweredProgram {
        kernels = List.copyOf(kernels);
    }

    /** The kernels of stage {@code index}, in launch order. */
    public List<Kernel> kernelsOf(int index) {
        return kernels.stream().filter(k -> k.stageIndex() == index).toList();
    }
}
