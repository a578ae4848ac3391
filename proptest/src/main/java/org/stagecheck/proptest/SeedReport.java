package org.stagecheck.proptest;

import java.lang.reflect.Method;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.TestAbortedException;

/**
 * Names the seed of a failed {@link SeededProperty} try, and the Maven command that runs that try
 * alone, at the head of the failure's message (where a test report shows it), keeping the
 * original failure as the cause. Skips (a failed assumption) pass through unchanged.
 */
final class SeedReport implements InvocationInterceptor {
    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                            ExtensionContext context) throws Throwable {
        try {
            invocation.proceed();
        } catch (TestAbortedException | VirtualMachineError skippedOrFatal) {
            throw skippedOrFatal;
        } catch (Throwable failure) {
            if (call.getArguments().isEmpty() || !(call.getArguments().getFirst() instanceof Long seed)) {
                throw failure;
            }
            Method m = call.getExecutable();
            throw new AssertionError(replayLine(m.getDeclaringClass(), m.getName(), seed) + "\n" + describe(failure), failure);
        }
    }

    /** One line: the seed, and how to run that try again on its own. */
    static String replayLine(Class<?> testClass, String method, long seed) {
        String basedir = System.getProperty("basedir");
        String module = basedir == null ? "<module>" : java.nio.file.Path.of(basedir).getFileName().toString();
        return "seed " + seed + " failed; replay it alone with: bin/mvn25 -B -q test -pl " + module + " -am -Dtest='"
                + testClass.getSimpleName() + "#" + method + "' -D" + Seeds.REPLAY + "=" + seed
                + " -Dsurefire.failIfNoSpecifiedTests=false";
    }

    private static String describe(Throwable failure) {
        return failure instanceof AssertionError && failure.getMessage() != null ? failure.getMessage() : failure.toString();
    }
}
