package org.stagecheck.mavenexample;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import org.w3c.dom.Element;

/**
 * A local Maven repository for the fresh project, laid out as {@code mvn install} would lay it out
 * but written here, never into the user's repository: this reactor's poms and jars (the jars made
 * from each module's {@code target/classes}, so they are the classes just built) and, for every
 * third-party artifact, a link into the user's local repository, which the reactor's own build
 * filled. The user's copies of this project's artifacts (from an earlier install) are left out,
 * so the fresh project can only see what this build made.
 */
final class ReactorRepository {
    private ReactorRepository() {
    }

    /** Creates {@code repo} holding the reactor of {@code rootDir} (all modules but {@code skipModule}) and links to {@code userRepo}. */
    static void create(Path rootDir, RootPom root, String skipModule, Path userRepo, Path repo) throws Exception {
        Path ours = Path.of(root.groupId().replace('.', '/'));
        linkAllBut(userRepo, repo, ours);
        publish(root.groupId(), root.artifactId(), root.version(), rootDir.resolve("pom.xml"), null, repo);
        for (String module : root.modules()) {
            if (module.equals(skipModule)) {
                continue;
            }
            Path dir = rootDir.resolve(module);
            Element pom = RootPom.parse(dir.resolve("pom.xml")).getDocumentElement();
            String artifactId = RootPom.textOrNull(pom, "artifactId");
            String packaging = RootPom.textOrNull(pom, "packaging");
            Path classes = null;
            if (packaging == null || packaging.equals("jar")) {
                classes = dir.resolve("target/classes");
                if (!Files.isDirectory(classes)) {
                    throw new AssertionError("module " + module + " is not built (no " + classes + "): build the reactor first,"
                            + " e.g. bin/mvn25 -o test -pl maven-example -am");
                }
            }
            publish(root.groupId(), artifactId, root.version(), dir.resolve("pom.xml"), classes, repo);
        }
    }

    /** Links every entry of {@code from} into {@code to}, except the path {@code skip}; the directories above it become real ones. */
    private static void linkAllBut(Path from, Path to, Path skip) throws IOException {
        Files.createDirectories(to);
        String first = skip.getName(0).toString();
        try (Stream<Path> entries = Files.list(from)) {
            for (Path e : entries.sorted().toList()) {
                String name = e.getFileName().toString();
                if (!name.equals(first)) {
                    Files.createSymbolicLink(to.resolve(name), e.toAbsolutePath());
                } else if (skip.getNameCount() > 1) {
                    linkAllBut(e, to.resolve(name), skip.subpath(1, skip.getNameCount()));
                }
            }
        }
    }

    /** Removes the links {@code create} made (never what they point to), leaving only this repository's own files. */
    static void unlink(Path repo) throws IOException {
        if (!Files.isDirectory(repo)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(repo)) {
            for (Path p : walk.filter(Files::isSymbolicLink).toList()) {
                Files.delete(p);
            }
        }
    }

    /** Writes {@code artifactId-version.pom} (and {@code .jar} of {@code classes}, when given) where Maven looks for them. */
    private static void publish(String groupId, String artifactId, String version, Path pom, Path classes, Path repo) throws IOException {
        Path dir = repo.resolve(groupId.replace('.', '/')).resolve(artifactId).resolve(version);
        Files.createDirectories(dir);
        Files.copy(pom, dir.resolve(artifactId + "-" + version + ".pom"));
        if (classes != null) {
            jar(classes, dir.resolve(artifactId + "-" + version + ".jar"));
        }
    }

    private static void jar(Path classes, Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            for (Path f : files) {
                String name = classes.relativize(f).toString().replace('\\', '/');
                if (name.equals("META-INF/MANIFEST.MF")) {
                    continue;
                }
                j.putNextEntry(new JarEntry(name));
                Files.copy(f, j);
                j.closeEntry();
            }
        }
    }
}
