//! `<NAME>.pc` and `<NAME>Config.cmake`: how build systems find a library
//! (CONTRACT.md section 2). Both locate the library's folder from their own
//! place (`${pcfiledir}`, `CMAKE_CURRENT_LIST_FILE`), so the output folder
//! can be moved as a whole.
//!
//! - pkg-config: `PKG_CONFIG_PATH=OUT pkg-config --cflags --libs NAME`
//!   (shared, with an rpath), `--static` adds what the archive needs.
//! - CMake: `find_package(NAME CONFIG REQUIRED PATHS OUT)`, then link
//!   `NAME::NAME` (shared) or `NAME::static`; `NAME_WEIGHTS` is the path of
//!   `NAME.weights` for a library with external weights.

/// The pkg-config file of library `name`.
pub fn pkg_config(name: &str) -> String {
    format!(
        "prefix=${{pcfiledir}}\n\
         libdir=${{prefix}}\n\
         includedir=${{prefix}}\n\
         \n\
         Name: {name}\n\
         Description: {name}, a model compiled by agc\n\
         Version: {version}\n\
         Cflags: -I${{includedir}}\n\
         Libs: -L${{libdir}} -l{name} -Wl,-rpath,${{libdir}}\n\
         Libs.private: -lm -lpthread -ldl\n",
        version = env!("CARGO_PKG_VERSION"),
    )
}

/// The CMake package configuration file of library `name` (`external`: it
/// has a weights file).
pub fn cmake_config(name: &str, external: bool) -> String {
    let weights = if external {
        format!("set({name}_WEIGHTS \"${{_agc_{name}_dir}}/{name}.weights\")\n")
    } else {
        String::new()
    };
    format!(
        "# {name}: a model compiled by agc. Imported targets: {name}::{name} (shared library)\n\
         # and {name}::static (archive). Generated; do not edit.\n\
         get_filename_component(_agc_{name}_dir \"${{CMAKE_CURRENT_LIST_FILE}}\" DIRECTORY)\n\
         if(NOT TARGET {name}::{name})\n\
         \x20 add_library({name}::{name} SHARED IMPORTED)\n\
         \x20 set_target_properties({name}::{name} PROPERTIES\n\
         \x20   IMPORTED_LOCATION \"${{_agc_{name}_dir}}/lib{name}.so\"\n\
         \x20   IMPORTED_SONAME \"lib{name}.so\"\n\
         \x20   INTERFACE_INCLUDE_DIRECTORIES \"${{_agc_{name}_dir}}\")\n\
         \x20 add_library({name}::static STATIC IMPORTED)\n\
         \x20 set_target_properties({name}::static PROPERTIES\n\
         \x20   IMPORTED_LOCATION \"${{_agc_{name}_dir}}/lib{name}.a\"\n\
         \x20   INTERFACE_INCLUDE_DIRECTORIES \"${{_agc_{name}_dir}}\"\n\
         \x20   INTERFACE_LINK_LIBRARIES \"m;pthread;dl\")\n\
         endif()\n\
         {weights}\
         set({name}_FOUND TRUE)\n"
    )
}

/// `<NAME>ConfigVersion.cmake`: `find_package(NAME 0.1)` accepts this
/// build when the version asked for is not newer than agc's.
pub fn cmake_version() -> String {
    format!(
        "set(PACKAGE_VERSION \"{v}\")\n\
         if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)\n\
         \x20 set(PACKAGE_VERSION_COMPATIBLE FALSE)\n\
         else()\n\
         \x20 set(PACKAGE_VERSION_COMPATIBLE TRUE)\n\
         \x20 if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)\n\
         \x20   set(PACKAGE_VERSION_EXACT TRUE)\n\
         \x20 endif()\n\
         endif()\n",
        v = env!("CARGO_PKG_VERSION")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_name_the_library() {
        let pc = pkg_config("mlp");
        assert!(
            pc.contains("Libs: -L${libdir} -lmlp -Wl,-rpath,${libdir}"),
            "{pc}"
        );
        let cm = cmake_config("mlp", true);
        assert!(cm.contains("add_library(mlp::mlp SHARED IMPORTED)"), "{cm}");
        assert!(cm.contains("\"${_agc_mlp_dir}/libmlp.so\""), "{cm}");
        assert!(
            cm.contains("set(mlp_WEIGHTS \"${_agc_mlp_dir}/mlp.weights\")"),
            "{cm}"
        );
        assert!(!cmake_config("mlp", false).contains("WEIGHTS"));
    }
}
