package org.stagecheck.backend;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Backends by name (brief, "Modules": one interface, every implementation behind it): the
 * providers registered with {@link ServiceLoader} by the modules on the class or module path, the
 * interpreter's ({@code interp}) and the CUDA backend's ({@code cuda}, {@code cuda-emu}) among
 * them. Callers configure a backend with its typed {@link BackendOptions} and never name its
 * implementation class. Nothing is cached: each call asks the service loader afresh.
 */
public final class Backends {
    private Backends() {
    }

    /** Every registered name: the reference first, then the others by name. */
    public static List<String> names() {
        List<String> names = new ArrayList<>();
        for (BackendProvider p : providers()) {
            names.addAll(p.names());
        }
        return List.copyOf(names);
    }

    /** The backend {@code name} with its provider's default options. */
    public static Backend named(String name) {
        return create(name, null);
    }

    /**
     * The backend {@code name} configured by {@code options}.
     *
     * @throws UnknownBackendException  when no provider offers {@code name}
     * @throws IllegalArgumentException when {@code options} are another backend's
     */
    public static Backend named(String name, BackendOptions options) {
        return create(name, java.util.Objects.requireNonNull(options, "options"));
    }

    private static Backend create(String name, BackendOptions options) {
        for (BackendProvider p : providers()) {
            if (p.names().contains(name)) {
                BackendOptions o = options == null ? p.defaults() : options;
                if (!p.optionsType().isInstance(o)) {
                    throw new IllegalArgumentException("backend '" + name + "' takes " + p.optionsType().getSimpleName()
                            + ", not " + o.getClass().getSimpleName());
                }
                return p.create(name, o);
            }
        }
        throw new UnknownBackendException(name, names());
    }

    /**
     * The registered providers, the reference first. Two providers of one name, or two that both
     * claim to be the reference, are a broken installation (two versions of a backend on the
     * path, say): refused by name rather than one silently shadowing the other.
     */
    private static List<BackendProvider> providers() {
        List<BackendProvider> list = new ArrayList<>();
        ServiceLoader.load(BackendProvider.class, Backends.class.getClassLoader()).forEach(list::add);
        list.sort(Comparator.comparing((BackendProvider p) -> !p.reference()).thenComparing(p -> p.names().getFirst()));
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (BackendProvider p : list) {
            for (String n : p.names()) {
                if (!seen.add(n)) {
                    throw new IllegalStateException("two backend providers register the name '" + n + "': " + describe(list));
                }
            }
        }
        if (list.stream().filter(BackendProvider::reference).count() > 1) {
            throw new IllegalStateException("more than one backend provider claims to be the reference: " + describe(list));
        }
        return list;
    }

    private static String describe(List<BackendProvider> list) {
        return list.stream().map(p -> p.getClass().getName() + " " + p.names()).collect(java.util.stream.Collectors.joining(", "));
    }
}
