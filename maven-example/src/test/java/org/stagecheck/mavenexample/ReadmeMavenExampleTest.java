package org.stagecheck.mavenexample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Use from Maven" works as written: its dependency and its test class, put into a
 * new Maven project in a temporary directory, compile and pass, with this reactor's freshly built
 * artifacts as the only stagecheck artifacts Maven can see (offline, in a repository of its own).
 * Skipped only where no Maven can be found.
 */
@Tag("slow")
class ReadmeMavenExampleTest {
    private static final Path ROOT = Path.of("..");
    private static final String THIS_MODULE = "maven-example";

    @TempDir
    Path work;

    private Path mvn;
    private RootPom root;
    private Path settings;

    @BeforeEach
    void freshRepository() throws Exception {
        Optional<Path> found = MavenRun.find();
        assumeTrue(found.isPresent(), "Maven not found (no stagecheck.maven.home, no mvn on the PATH): the README's Maven example is not checked");
        mvn = found.get();
        root = RootPom.read(ROOT.resolve("pom.xml"));
        String user = System.getProperty("stagecheck.user.repository", "");
        Path userRepo = user.isBlank() || user.contains("${") ? Path.of(System.getProperty("user.home"), ".m2", "repository") : Path.of(user);
        Path repo = work.resolve("repository");
        ReactorRepository.create(ROOT, root, THIS_MODULE, userRepo, repo);
        settings = FreshProject.settings(work, repo);
    }

    @AfterEach
    void unlinkUserRepository() throws Exception {
        ReactorRepository.unlink(work.resolve("repository"));
    }

    @Test
    void theReadmeExampleCompilesAndPassesInAFreshProject() throws Exception {
        ReadmeSnippet snippet = ReadmeSnippet.from(ROOT.resolve("README.md"));
        Path project = work.resolve("project");
        FreshProject.write(project, snippet, root, ROOT.resolve("examples"));
        assertThat(snippet.ourArtifacts(root.groupId())).as("the README's dependency names a %s artifact", root.groupId()).isNotEmpty();
        for (String artifactId : snippet.ourArtifacts(root.groupId())) {
            assertThat(work.resolve("repository").resolve(root.groupId().replace('.', '/')).resolve(artifactId))
                    .as("the README's dependency %s:%s is a module of this reactor (modules: %s)", root.groupId(), artifactId, root.modules())
                    .isDirectory();
        }

        MavenRun run = MavenRun.run(mvn, project, settings, "test");

        assertThat(run.exitCode()).as("mvn test in a fresh project with the README's example:%n%s", run.log()).isZero();
        assertThat(run.log()).as("the example's test ran").containsPattern("Tests run: [1-9]\\d*, Failures: 0, Errors: 0, Skipped: 0");
    }

    @Test
    void anExampleWhoseTestFailsFailsTheCheck() throws Exception {
        ReadmeSnippet snippet = ReadmeSnippet.from(ROOT.resolve("README.md"));
        // the same class with one more assertion, which cannot hold
        String source = snippet.testSource();
        int lastBrace = source.lastIndexOf('}');
        String failing = source.substring(0, lastBrace) + """

                    @org.junit.jupiter.api.Test
                    void plantedFailure() {
                        org.junit.jupiter.api.Assertions.fail("planted failure");
                    }
                }
                """;
        Path project = work.resolve("failing");
        FreshProject.write(project, snippet.withTestSource(failing), root, ROOT.resolve("examples"));

        MavenRun run = MavenRun.run(mvn, project, settings, "test");

        assertThat(run.exitCode()).as(run.log()).isNotZero();
        assertThat(run.log()).contains("plantedFailure").contains("planted failure");
    }
}
