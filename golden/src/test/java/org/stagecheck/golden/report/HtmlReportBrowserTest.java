package org.stagecheck.golden.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.golden.Subjects;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.golden.store.ManifestCodec;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * The HTML report in a real browser: headless Chromium renders it to a screenshot, in which the
 * heat map's colours are found (the failing block in red, the small errors in yellow to blue).
 * Skipped, saying so, where Chromium is not installed.
 */
class HtmlReportBrowserTest {
    @TempDir
    Path tmp;

    static Optional<String> chromium() {
        for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                    return Optional.of(Path.of(dir, name).toString());
                }
            }
        }
        return Optional.empty();
    }

    @Test
    void theHeatMapIsVisibleInHeadlessChromium() throws Exception {
        Optional<String> browser = chromium();
        assumeTrue(browser.isPresent(), "chromium is not installed (apt-get install chromium); the HTML report was not opened in a browser");
        Subjects.Subject s = Subjects.examples().stream().filter(x -> x.name().equals("tiled-matmul-multicast")).findFirst().orElseThrow();
        Path c = tmp.resolve("mm");
        Golden.record(s.program(), s.bound(), s.params(), RecordOptions.defaults(), c);
        Manifest m = ManifestCodec.read(c.resolve(Manifest.FILE_NAME));
        Tensor expected = Npy.read(c.resolve(m.outputs().get(0).file()));
        float[] v = expected.toFloats();
        for (int i = 0; i < v.length; i++) {
            int row = i / 32;
            int col = i % 32;
            if (row >= 4 && col >= 8 && col < 16) {
                v[i] += 0.5f;                       // a block that fails
            } else if ((row + col) % 3 == 0) {
                v[i] = Math.nextUp(v[i]);           // rounding-sized differences that pass
            }
        }
        Path act = Files.createDirectories(tmp.resolve("act"));
        Npy.write(act.resolve("c.npy"), Tensor.fromFloats(expected.dtype(), expected.shape(), v));
        CaseResult r = Golden.check(c, new Actuals.FromDirectory(act));
        assertThat(r.status()).isEqualTo(CaseResult.Status.FAIL);
        Path html = tmp.resolve("report.html");
        Files.writeString(html, HtmlReport.of(List.of(r)));

        Path shot = tmp.resolve("shot.png");
        List<String> cmd = new ArrayList<>(List.of(browser.get(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + Files.createTempDirectory(tmp, "profile"), "--window-size=1000,1400",
                "--screenshot=" + shot, html.toUri().toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("chromium.log").toFile()).start();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("chromium finished").isTrue();
        assertThat(shot).as(Files.readString(tmp.resolve("chromium.log"))).exists();
        BufferedImage img = ImageIO.read(shot.toFile());
        int failing = 0;
        int passingError = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                int rgb = img.getRGB(x, y);
                int red = (rgb >> 16) & 0xFF;
                int green = (rgb >> 8) & 0xFF;
                int blue = rgb & 0xFF;
                if (red > 140 && green < 60 && blue < 40) {
                    failing++;          // the failing block, dark red (the legend's swatch is a few hundred pixels)
                }
                if (blue > 150 && red > 200 && green > 200 && blue < 235) {
                    passingError++;     // light yellow to blue of small errors
                }
            }
        }
        // the failing block is 4 x 8 of 8 x 32 cells drawn 8 pixels each: about 2000 pixels
        assertThat(failing).as("dark red pixels of the failing block").isGreaterThan(1500);
        assertThat(passingError).as("pixels of small errors").isGreaterThan(500);
        Files.copy(shot, Path.of("target", "golden-report-screenshot.png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
