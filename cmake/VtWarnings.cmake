# vt_own_code(TARGET): warnings for vt's own C++ sources. Third-party headers come from
# system include directories, so they do not trip -Werror.
#
# GCC 12 reports -Wrestrict on std::string concatenation inside libstdc++ at -O3 (GCC bug
# 105329, a false positive fixed in GCC 13); it is turned off there and nowhere else.
function(vt_own_code target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${VT_WERROR}>>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${VT_WERROR}>>:-Werror=all-warnings>)
endfunction()
