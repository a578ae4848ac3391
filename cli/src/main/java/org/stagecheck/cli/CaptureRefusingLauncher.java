package org.stagecheck.cli;

import org.stagecheck.cuda.runtime.ForwardingLauncher;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;

/**
 * A launcher whose graph captures fail as a driver's can (a call not allowed while capturing),
 * everything else passed to the real one: {@code cuda check} drives graph mode's capture-failure
 * fall-back through it.
 */
final class CaptureRefusingLauncher extends ForwardingLauncher {
    static final String ERROR = "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";

    CaptureRefusingLauncher(Launcher inner) {
        super(inner);
    }

    @Override
    public void beginCapture() throws LaunchException {
        throw new LaunchException(ERROR, "cuStreamBeginCapture: operation not permitted when stream is capturing (refused on purpose by cuda check)");
    }
}
