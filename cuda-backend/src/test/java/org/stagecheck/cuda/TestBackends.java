package org.stagecheck.cuda;

import java.nio.file.Path;

import org.stagecheck.cuda.compile.ArtifactCache;
import org.stagecheck.cuda.compile.Toolchain;

/** The options the tests run with: host emulation, the build's cache directory. */
final class TestBackends {
    private TestBackends() {
    }

    static ArtifactCache cache() {
        return new ArtifactCache(ArtifactCache.defaultRoot(), Toolchain.fromEnvironment());
    }

    static CudaOptions emulation() {
        return CudaOptions.emulation().withCache(cache());
    }

    static Path cacheRoot() {
        return ArtifactCache.defaultRoot();
    }
}
