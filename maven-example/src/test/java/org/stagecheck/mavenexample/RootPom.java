package org.stagecheck.mavenexample;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What the fresh project takes from the repository's root pom: the reactor's version and modules,
 * and the versions of JUnit and of the compiler, resources and surefire plugins (so that it
 * needs nothing the reactor's own build did not already fetch).
 */
record RootPom(String groupId, String artifactId, String version, List<String> modules, Element root) {

    static RootPom read(Path pom) throws Exception {
        Element root = parse(pom).getDocumentElement();
        List<String> modules = new ArrayList<>();
        for (Element m : children(child(root, "modules"), "module")) {
            modules.add(m.getTextContent().strip());
        }
        return new RootPom(text(root, "groupId"), text(root, "artifactId"), text(root, "version"), List.copyOf(modules), root);
    }

    /** The value of {@code <properties><name>}. */
    String property(String name) {
        return text(child(root, "properties"), name);
    }

    /** The version {@code <pluginManagement>} gives the plugin {@code artifactId}. */
    String pluginVersion(String artifactId) {
        Element plugins = child(child(child(root, "build"), "pluginManagement"), "plugins");
        for (Element p : children(plugins, "plugin")) {
            if (text(p, "artifactId").equals(artifactId)) {
                return text(p, "version");
            }
        }
        throw new AssertionError("the root pom manages no version of " + artifactId);
    }

    static Document parse(Path pom) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(pom.toFile());
    }

    /** The text of the direct child {@code name}, or null when there is none. */
    static String textOrNull(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.getFirst().getTextContent().strip();
    }

    private static String text(Element parent, String name) {
        String t = textOrNull(parent, name);
        if (t == null) {
            throw new AssertionError("<" + parent.getTagName() + "> of the root pom has no <" + name + ">");
        }
        return t;
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        if (found.isEmpty()) {
            throw new AssertionError("<" + parent.getTagName() + "> of the root pom has no <" + name + ">");
        }
        return found.getFirst();
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i).getNodeType() == Node.ELEMENT_NODE && ((Element) nodes.item(i)).getTagName().equals(name)) {
                out.add((Element) nodes.item(i));
            }
        }
        return out;
    }
}
