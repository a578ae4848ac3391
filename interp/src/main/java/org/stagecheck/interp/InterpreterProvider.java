package org.stagecheck.interp;

import java.util.List;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.BackendOptions;
import org.stagecheck.backend.BackendProvider;

/**
 * Registers the reference interpreter with {@link org.stagecheck.backend.Backends} under the name
 * {@code interp}, configured by {@link RunOptions} ({@link RunOptions#defaults()} when none are given).
 */
public final class InterpreterProvider implements BackendProvider {
    @Override
    public List<String> names() {
        return List.of("interp");
    }

    @Override
    public boolean reference() {
        return true;
    }

    @Override
    public Class<RunOptions> optionsType() {
        return RunOptions.class;
    }

    @Override
    public RunOptions defaults() {
        return RunOptions.defaults();
    }

    @Override
    public Backend create(String name, BackendOptions options) {
        return new Interpreter((RunOptions) options);
    }
}
