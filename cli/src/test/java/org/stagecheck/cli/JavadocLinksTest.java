package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Javadoc and the docs name only classes and members that exist. Checked across every module's
 * sources, docs/*.md and README.md:
 * <ul>
 *   <li>every {@code {@link Type#member}} and {@code {@linkplain ...}}: the type is one of the
 *   repository's, or a JDK or library type the file imports (or from {@code java.lang}); the
 *   member is declared in the type's source (for the repository's types) or found by reflection;
 *   {@code {@link #member}} is declared in the same file;</li>
 *   <li>in comments, and in back-quoted spans of the docs, every {@code Type.member} or
 *   {@code Type#member} whose type is one of the repository's names a member its source
 *   declares.</li>
 * </ul>
 * "Declared" is read from the source text (the member's name occurs in the type's file, or in a
 * file of a type it extends), so a renamed or removed method is caught, an overload is not told
 * apart. (This file, whose javadoc shows the forms, is not read.)
 */
class JavadocLinksTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern TYPE_DECL = Pattern.compile("\\b(?:class|interface|record|enum|@interface)\\s+([A-Z]\\w*)");
    private static final Pattern LINK = Pattern.compile("\\{@link(?:plain)?\\s+([\\w.]*)(?:#(\\w+))?[^}]*}");
    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);
    private static final Pattern TYPE_MEMBER = Pattern.compile("\\b([A-Z]\\w*)[.#]([a-z]\\w*)\\b");
    private static final Pattern BACKQUOTED = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern SUPERTYPES = Pattern.compile("\\b(?:extends|implements)\\s+([\\w.<>, ?]+?)\\s*[{(]");

    /** Simple type name to the sources declaring a type of that name. */
    private final Map<String, List<String>> types = new HashMap<>();
    private final Map<Path, String> sources = new LinkedHashMap<>();

    @Test
    void everyReferenceNamesAClassOrMemberThatExists() throws IOException {
        index();
        List<String> broken = new ArrayList<>();
        for (Map.Entry<Path, String> e : sources.entrySet()) {
            String where = ROOT.relativize(e.getKey()).toString();
            String text = e.getValue();
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String problem = linkProblem(text, link.group(1), link.group(2));
                if (problem != null) {
                    broken.add(where + ": " + link.group() + ": " + problem);
                }
            }
            Matcher comment = COMMENT.matcher(text);
            while (comment.find()) {
                memberProblems(where, comment.group(), importedElsewhere(text), broken);
            }
        }
        for (Path doc : docs()) {
            Matcher quoted = BACKQUOTED.matcher(Files.readString(doc));
            while (quoted.find()) {
                memberProblems(ROOT.relativize(doc).toString(), quoted.group(1), List.of(), broken);
            }
        }
        assertThat(sources).as("sources read").hasSizeGreaterThan(100);
        assertThat(broken).as("references to classes or members that do not exist").isEmpty();
    }

    @Test
    void aRemovedMemberIsCaught() {
        types.put("Widget", List.of("final class Widget { int size() { return 1; } }"));
        assertThat(linkProblem("", "Widget", "size")).isNull();
        assertThat(linkProblem("", "Widget", "text")).contains("Widget has no member text");
        assertThat(linkProblem("", "Gadget", null)).contains("no type Gadget");
        assertThat(linkProblem("", "String", "strip")).isNull();
        assertThat(linkProblem("", "String", "shout")).contains("no member shout");
        assertThat(linkProblem("void run() {}", "", "run")).isNull();
        assertThat(linkProblem("void run() {}", "", "walk")).contains("no member walk");
    }

    /** Why {@code {@link type#member}} in {@code file} is broken, or null when it is not. */
    private String linkProblem(String file, String type, String member) {
        if (type.isEmpty()) {
            return member == null || declares(LINK.matcher(file).replaceAll(""), member) ? null : "this file has no member " + member;
        }
        String simple = type.substring(type.lastIndexOf('.') + 1);
        if (simple.isEmpty() || !Character.isUpperCase(simple.charAt(0))) {
            return null;   // a package
        }
        boolean foreign = type.startsWith("java") || importedElsewhere(file).contains(type.split("\\.")[0]);
        if (types.containsKey(simple) && !foreign) {
            return member == null || repoDeclares(simple, member, new ArrayList<>()) ? null : simple + " has no member " + member;
        }
        Class<?> c = load(file, type, simple);
        if (c == null) {
            return "no type " + type + " in the repository, its imports or java.lang";
        }
        return member == null || reflects(c, member) ? null : c.getName() + " has no member " + member;
    }

    /** The {@code Type.member} references of {@code text} whose type is the repository's, checked. */
    private void memberProblems(String where, String text, List<String> foreign, List<String> broken) {
        Matcher m = TYPE_MEMBER.matcher(text);
        while (m.find()) {
            String type = m.group(1);
            if (types.containsKey(type) && !foreign.contains(type) && !repoDeclares(type, m.group(2), new ArrayList<>())) {
                broken.add(where + ": " + m.group() + ": " + type + " has no member " + m.group(2));
            }
        }
    }

    /** Simple names a file imports from outside the repository (a JDK {@code Files} is not a repository {@code Files}). */
    private static List<String> importedElsewhere(String file) {
        return Pattern.compile("(?m)^import\\s+(?!org\\.stagecheck)[\\w.]+\\.(\\w+);").matcher(file).results().map(r -> r.group(1)).toList();
    }

    private boolean repoDeclares(String type, String member, List<String> seen) {
        if (seen.contains(type)) {
            return false;
        }
        seen.add(type);
        for (String source : types.getOrDefault(type, List.of())) {
            if (declares(source, member)) {
                return true;
            }
            Matcher sup = SUPERTYPES.matcher(source);
            while (sup.find()) {
                for (String s : sup.group(1).replaceAll("<[^>]*>", "").split("[,\\s]+")) {
                    String simple = s.substring(s.lastIndexOf('.') + 1);
                    if (types.containsKey(simple) ? repoDeclares(simple, member, seen) : !simple.isEmpty() && Character.isUpperCase(simple.charAt(0))) {
                        return true;   // declared above, or maybe inherited from a type outside the repository
                    }
                }
            }
        }
        return false;
    }

    private static boolean declares(String source, String member) {
        return Pattern.compile("\\b" + Pattern.quote(member) + "\\b").matcher(COMMENT.matcher(source).replaceAll("")).find();
    }

    private static Class<?> load(String file, String type, String simple) {
        List<String> candidates = new ArrayList<>();
        if (type.contains(".")) {
            candidates.add(type);
        }
        Matcher imp = Pattern.compile("(?m)^import\\s+([\\w.]+\\." + Pattern.quote(type.split("\\.")[0]) + ");").matcher(file);
        if (imp.find()) {
            candidates.add(imp.group(1) + type.substring(type.split("\\.")[0].length()).replace('.', '$'));
        }
        candidates.add("java.lang." + simple);
        for (String name : candidates) {
            try {
                return Class.forName(name, false, JavadocLinksTest.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                // next candidate
            }
        }
        return null;
    }

    private static boolean reflects(Class<?> c, String member) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (m.getName().equals(member)) {
                    return true;
                }
            }
            for (Field f : k.getDeclaredFields()) {
                if (f.getName().equals(member)) {
                    return true;
                }
            }
        }
        for (Class<?> i : c.getInterfaces()) {
            if (reflects(i, member)) {
                return true;
            }
        }
        return false;
    }

    private void index() throws IOException {
        try (Stream<Path> walk = Files.walk(ROOT)) {
            for (Path f : walk.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/")
                    && !p.toString().contains("/target/") && !p.endsWith("JavadocLinksTest.java")).sorted().toList()) {
                String text = Files.readString(f);
                sources.put(f, text);
                Matcher d = TYPE_DECL.matcher(COMMENT.matcher(text).replaceAll(""));
                while (d.find()) {
                    types.computeIfAbsent(d.group(1), k -> new ArrayList<>()).add(text);
                }
            }
        }
    }

    private static List<Path> docs() throws IOException {
        List<Path> out = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            out.addAll(s.filter(p -> p.toString().endsWith(".md")).sorted().toList());
        }
        return out;
    }
}
