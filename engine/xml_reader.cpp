// engine/xml_reader.cpp: see xml_reader.h. Numbers are parsed with strtod over the whole text, so
// "1.0x" or "1,2,3" is an error naming the attribute, not a silent prefix.
#include "engine/xml_reader.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/closest_name.h"

namespace weft::engine {

using tinyxml2::XMLElement;

void ImportWarnings::add(const std::string& where, const std::string& text) {
    if (count_[text]++ == 0) first_.emplace_back(where, text);
}

std::vector<std::string> ImportWarnings::lines() const {
    std::vector<std::string> out;
    for (const auto& [where, text] : first_) {
        int more = count_.at(text) - 1;
        out.push_back(where + ": warning: " + text +
                      (more > 0 ? " (and " + std::to_string(more) + " more like it)" : std::string()));
    }
    return out;
}

XmlFile::XmlFile(const std::string& path) : path_(path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ImportError(path + ": cannot open the file");
    std::ostringstream ss;
    ss << in.rdbuf();
    parse(ss.str());
}

XmlFile::XmlFile(const std::string& text, const std::string& path) : path_(path) { parse(text); }

void XmlFile::parse(const std::string& text) {
    if (doc_.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS) {
        // tinyxml2's ErrorStr repeats the error name and line; keep its own sentence.
        std::string detail = doc_.ErrorStr() ? doc_.ErrorStr() : doc_.ErrorName();
        throw ImportError(path_ + ":" + std::to_string(doc_.ErrorLineNum()) + ": malformed XML: " + detail);
    }
    if (!doc_.RootElement()) throw ImportError(path_ + ":1: malformed XML: the file has no root element");
}

ElementReader::ElementReader(const XmlFile& f, const XMLElement* e, ImportWarnings& w, std::string what)
    : f_(f), e_(e), w_(w), what_(what.empty() ? "<" + std::string(e->Name()) + ">" : std::move(what)) {}

const char* ElementReader::raw(const std::string& name) {
    asked_.insert(name);
    if (const char* v = e_->Attribute(name.c_str())) return v;
    if (defaults_) {
        auto it = defaults_->find(name);
        if (it != defaults_->end()) return it->second.c_str();
    }
    return nullptr;
}

bool ElementReader::has(const std::string& name) { return raw(name) != nullptr; }

std::string ElementReader::string(const std::string& name, const std::string& fallback) {
    const char* v = raw(name);
    return v ? std::string(v) : fallback;
}

std::string ElementReader::required_string(const std::string& name) {
    const char* v = raw(name);
    if (!v) fail("missing attribute '" + name + "'");
    return v;
}

std::string ElementReader::choice(const std::string& name, const std::string& fallback, const std::vector<std::string>& allowed) {
    std::string v = string(name, fallback);
    for (const auto& a : allowed)
        if (a == v) return v;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "'" : ", '") + a + "'";
    std::string near = support::closest_name(v, allowed);
    fail("unknown " + name + " '" + v + "'" +
         (near.empty() ? " (expected one of " + list + ")" : " (did you mean '" + near + "'?)"));
}

std::vector<double> ElementReader::parse_numbers(const std::string& name, const char* text) {
    std::vector<double> out;
    const char* p = text;
    while (true) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
        if (!*p) break;
        char* end = nullptr;
        errno = 0;
        double v = std::strtod(p, &end);
        if (end == p || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r'))
            fail("attribute '" + name + "' must be numbers separated by spaces, got '" + text + "'");
        if (!std::isfinite(v) || errno == ERANGE) fail("attribute '" + name + "' must be finite numbers, got '" + text + "'");
        out.push_back(v);
        p = end;
    }
    return out;
}

double ElementReader::number(const std::string& name, double fallback) {
    const char* v = raw(name);
    if (!v) return fallback;
    std::vector<double> xs = parse_numbers(name, v);
    if (xs.size() != 1) fail("attribute '" + name + "' must be one number, got '" + v + "'");
    return xs[0];
}

double ElementReader::required_number(const std::string& name) {
    if (!has(name)) fail("missing attribute '" + name + "'");
    return number(name, 0.0);
}

bool ElementReader::boolean(const std::string& name, bool fallback) {
    std::string v = string(name, fallback ? "true" : "false");
    if (v == "true") return true;
    if (v == "false") return false;
    fail("attribute '" + name + "' must be 'true' or 'false', got '" + v + "'");
}

std::vector<double> ElementReader::numbers(const std::string& name, int n, const std::vector<double>& fallback, bool broadcast) {
    const char* v = raw(name);
    if (!v) return fallback;
    std::vector<double> xs = parse_numbers(name, v);
    if (broadcast && xs.size() == 1) return std::vector<double>(size_t(n), xs[0]);
    if (int(xs.size()) != n)
        fail("attribute '" + name + "' must have " + std::to_string(n) + " numbers, got " + std::to_string(xs.size()) + " ('" +
             v + "')");
    return xs;
}

std::vector<double> ElementReader::numbers_between(const std::string& name, int min_n, int max_n) {
    const char* v = raw(name);
    if (!v) return {};
    std::vector<double> xs = parse_numbers(name, v);
    if (int(xs.size()) < min_n || int(xs.size()) > max_n)
        fail("attribute '" + name + "' must have " + std::to_string(min_n) + " to " + std::to_string(max_n) + " numbers, got " +
             std::to_string(xs.size()) + " ('" + v + "')");
    return xs;
}

Vec3 ElementReader::vec3(const std::string& name, const Vec3& fallback) {
    std::vector<double> d = {fallback.x(), fallback.y(), fallback.z()};
    std::vector<double> xs = numbers(name, 3, d);
    return Vec3(float(xs[0]), float(xs[1]), float(xs[2]));
}

std::vector<const XMLElement*> ElementReader::children(const std::string& tag) {
    std::vector<const XMLElement*> out;
    for (const XMLElement* c = e_->FirstChildElement(tag.empty() ? nullptr : tag.c_str()); c;
         c = c->NextSiblingElement(tag.empty() ? nullptr : tag.c_str())) {
        out.push_back(c);
        visited_.insert(c);
    }
    return out;
}

const XMLElement* ElementReader::child(const std::string& tag) {
    auto all = children(tag);
    return all.empty() ? nullptr : all[0];
}

void ElementReader::accept(std::initializer_list<const char*> names) {
    for (const char* n : names) asked_.insert(n);
}

void ElementReader::finish() {
    for (const tinyxml2::XMLAttribute* a = e_->FirstAttribute(); a; a = a->Next())
        if (!asked_.count(a->Name()))
            w_.add(where(), "unsupported attribute '" + std::string(a->Name()) + "' of <" + e_->Name() + "> ignored");
    for (const XMLElement* c = e_->FirstChildElement(); c; c = c->NextSiblingElement())
        if (!visited_.count(c))
            w_.add(f_.where(c), "unsupported element <" + std::string(c->Name()) + "> in <" + e_->Name() + "> ignored");
}

}  // namespace weft::engine
