package org.stagecheck.cuda;

import java.util.List;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.BackendOptions;
import org.stagecheck.backend.BackendProvider;

/**
 * Registers the CUDA backend with {@link org.stagecheck.backend.Backends}: {@code cuda} runs on a
 * GPU through the driver, {@code cuda-emu} runs the same kernels in host emulation, {@code cuda-fake}
 * runs the driver path on the fake driver (which runs the emulation's kernels). All take
 * {@link CudaOptions}, whose target the name decides.
 */
public final class CudaProvider implements BackendProvider {
    @Override
    public List<String> names() {
        return List.of("cuda", "cuda-emu", "cuda-fake");
    }

    @Override
    public Class<CudaOptions> optionsType() {
        return CudaOptions.class;
    }

    @Override
    public CudaOptions defaults() {
        return CudaOptions.device();
    }

    @Override
    public Backend create(String name, BackendOptions options) {
        CudaOptions o = (CudaOptions) options;
        return new CudaBackend(o.withTarget(switch (name) {
            case "cuda-emu" -> CudaOptions.Target.EMULATION;
            case "cuda-fake" -> CudaOptions.Target.FAKE_DRIVER;
            default -> CudaOptions.Target.DEVICE;
        }));
    }
}
