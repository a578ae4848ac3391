package org.stagecheck.author.model;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.ir.Site;

/**
 * Per-chip state of the cut writer's walk through the model: the buffer holding the hidden state
 * on the chip's core (0,0), the rotary rows of this step's positions, and (batch) each row's
 * position as a one-element i32 buffer.
 */
final class ChipState {
    final int chip;
    final Site home;
    String hidden;
    String ropeCos;
    String ropeSin;
    final List<String> rowPos = new ArrayList<>();

    ChipState(int chip) {
        this.chip = chip;
        this.home = new Site(chip, 0, 0);
    }
}
