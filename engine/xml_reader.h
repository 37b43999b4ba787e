// engine/xml_reader.h: reading the elements of a robot description (URDF, MJCF) through tinyxml2,
// with every mistake located, shared by engine/urdf_import.cpp and engine/mjcf_import.cpp.
//
//   XmlFile f("robot.urdf");                           // ImportError "robot.urdf:7: malformed XML: ..."
//   ElementReader r(f, elem, warnings);                // one element
//   double m = r.number("value", 0.0);                 // "robot.urdf:12: <mass>: attribute 'value' ..."
//   Vec3 xyz = r.vec3("xyz", Vec3::Zero());
//   r.finish();                                        // a warning for each attribute nobody asked for
//
// As engine/scene_reader.h's TableReader does for TOML tables, the list of attributes an element
// may have lives in the code that reads them: an attribute nobody asked for is a warning naming it
// (never silently dropped), and so is an element nobody visited (ElementReader::children marks
// the ones it hands out; finish() names the rest). Errors are ImportError, whose message starts
// with "FILE:LINE: ".
#pragma once

#include <tinyxml2.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model_builder.h"

namespace weft::engine {

struct ImportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Warnings of one import, "FILE:LINE: text". The same text at several lines is kept once, with a
// count ("(and 3 more like it)") so that a model with a hundred joints gives one line per kind.
class ImportWarnings {
public:
    void add(const std::string& where, const std::string& text);
    std::vector<std::string> lines() const;

private:
    std::vector<std::pair<std::string, std::string>> first_;  // where, text
    std::map<std::string, int> count_;                        // text -> occurrences
};

class XmlFile {
public:
    explicit XmlFile(const std::string& path);                  // reads and parses
    XmlFile(const std::string& text, const std::string& path);  // parses `text` as if read from `path`
    const std::string& path() const { return path_; }
    const tinyxml2::XMLElement* root() const { return doc_.RootElement(); }
    std::string where(const tinyxml2::XMLElement* e) const { return path_ + ":" + std::to_string(e->GetLineNum()); }
    [[noreturn]] void fail(const tinyxml2::XMLElement* e, const std::string& msg) const {
        throw ImportError(where(e) + ": " + msg);
    }

private:
    void parse(const std::string& text);
    std::string path_;
    tinyxml2::XMLDocument doc_;
};

class ElementReader {
public:
    // `what` names the element in messages ("joint 'knee'"); default "<tag>".
    ElementReader(const XmlFile& f, const tinyxml2::XMLElement* e, ImportWarnings& w, std::string what = "");
    // Attributes from a <default> class (MJCF): read when the element does not set them.
    void set_defaults(const std::map<std::string, std::string>* d) { defaults_ = d; }

    const tinyxml2::XMLElement* element() const { return e_; }
    const std::string& what() const { return what_; }
    std::string where() const { return f_.where(e_); }
    [[noreturn]] void fail(const std::string& msg) const { f_.fail(e_, what_ + ": " + msg); }
    void warn(const std::string& msg) const { w_.add(where(), what_ + ": " + msg); }

    bool has(const std::string& name);         // on the element or its default class
    const char* raw(const std::string& name);  // nullptr if absent
    std::string string(const std::string& name, const std::string& fallback = "");
    std::string required_string(const std::string& name);
    // One of `allowed` (else an error with did-you-mean).
    std::string choice(const std::string& name, const std::string& fallback, const std::vector<std::string>& allowed);
    double number(const std::string& name, double fallback);
    double required_number(const std::string& name);
    bool boolean(const std::string& name, bool fallback);
    // Exactly n numbers, or (`broadcast`) one number for all n.
    std::vector<double> numbers(const std::string& name, int n, const std::vector<double>& fallback, bool broadcast = false);
    // Between min_n and max_n numbers.
    std::vector<double> numbers_between(const std::string& name, int min_n, int max_n);
    Vec3 vec3(const std::string& name, const Vec3& fallback);

    // Child elements named `tag` (all of them when tag is empty), marked as visited.
    std::vector<const tinyxml2::XMLElement*> children(const std::string& tag = "");
    const tinyxml2::XMLElement* child(const std::string& tag);  // the first, or nullptr
    // Marks `name` as read without reading it (an attribute with no effect by design).
    void accept(std::initializer_list<const char*> names);
    // A warning for each attribute and child element nobody asked for.
    void finish();

private:
    std::vector<double> parse_numbers(const std::string& name, const char* text);
    const XmlFile& f_;
    const tinyxml2::XMLElement* e_;
    ImportWarnings& w_;
    std::string what_;
    const std::map<std::string, std::string>* defaults_ = nullptr;
    std::set<std::string> asked_;
    std::set<const tinyxml2::XMLElement*> visited_;
};

}  // namespace weft::engine
