package org.stagecheck.mavenexample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A new Maven project, outside the repository, as a user would start one: a pom with the README's
 * dependency, JUnit Jupiter and the compiler, resources and surefire plugins at the root pom's
 * versions; the README's test class; and a copy of the repository's {@code examples/} (the
 * example loads one of them by a path relative to the project).
 */
final class FreshProject {
    private FreshProject() {
    }

    static void write(Path project, ReadmeSnippet snippet, RootPom root, Path examples) throws IOException {
        Files.createDirectories(project);
        Files.writeString(project.resolve("pom.xml"), pom(snippet, root));
        Path source = project.resolve("src/test/java").resolve(snippet.sourceFile());
        Files.createDirectories(source.getParent());
        Files.writeString(source, snippet.testSource());
        copyTree(examples, project.resolve("examples"));
    }

    /** A settings file that keeps Maven offline and on {@code repo}, whatever the user's settings say. */
    static Path settings(Path dir, Path repo) throws IOException {
        Path file = dir.resolve("settings.xml");
        Files.writeString(file, """
                <settings>
                  <localRepository>%s</localRepository>
                  <offline>true</offline>
                </settings>
                """.formatted(repo.toAbsolutePath()));
        return file;
    }

    private static String pom(ReadmeSnippet snippet, RootPom root) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>com.example</groupId>
                  <artifactId>compiler-tests</artifactId>
                  <version>1.0</version>
                  <properties>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                    <maven.compiler.release>25</maven.compiler.release>
                  </properties>
                  <dependencies>
                %s
                    <dependency>
                      <groupId>org.junit.jupiter</groupId>
                      <artifactId>junit-jupiter</artifactId>
                      <version>%s</version>
                      <scope>test</scope>
                    </dependency>
                  </dependencies>
                  <build>
                    <plugins>
                      <plugin><artifactId>maven-resources-plugin</artifactId><version>%s</version></plugin>
                      <plugin><artifactId>maven-compiler-plugin</artifactId><version>%s</version></plugin>
                      <plugin><artifactId>maven-surefire-plugin</artifactId><version>%s</version></plugin>
                    </plugins>
                  </build>
                </project>
                """.formatted(snippet.dependency().indent(4).stripTrailing(), root.property("junit.version"),
                root.pluginVersion("maven-resources-plugin"), root.pluginVersion("maven-compiler-plugin"),
                root.pluginVersion("maven-surefire-plugin"));
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.sorted().toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
