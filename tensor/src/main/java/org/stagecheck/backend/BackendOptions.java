package org.stagecheck.backend;

/**
 * The typed configuration of one kind of backend, handed to its {@link BackendProvider} through
 * {@link Backends#named(String, BackendOptions)}: the interpreter's precision, threads, trace and
 * non-finite stop; the CUDA backend's math mode, graphs and segment size. Each backend module
 * declares its own record implementing this interface, so a caller configures a backend by name
 * without naming its implementation class.
 */
public interface BackendOptions {
}
