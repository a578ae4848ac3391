package org.stagecheck.backend;

import java.util.List;

/**
 * The service a backend module registers (with {@code META-INF/services}, {@link java.util.ServiceLoader})
 * so that {@link Backends} can make its backends by name. A provider may offer several names (the
 * CUDA backend offers {@code cuda}, on a GPU, and {@code cuda-emu}, in host emulation).
 */
public interface BackendProvider {
    /** The names this provider makes backends for, e.g. {@code interp}. */
    List<String> names();

    /** Whether this is the reference implementation, listed first by {@link Backends#names()}. */
    default boolean reference() {
        return false;
    }

    /** The type of options its backends take (see {@link #create}). */
    Class<? extends BackendOptions> optionsType();

    /** The options a backend gets when the caller gives none. */
    BackendOptions defaults();

    /**
     * A backend named {@code name} (one of {@link #names()}), configured by {@code options}, which
     * are of {@link #optionsType()} ({@link Backends} checks both before calling).
     */
    Backend create(String name, BackendOptions options);
}
