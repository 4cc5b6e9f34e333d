# vt_own_code(TARGET): warnings for vt's own C++ sources. Third-party headers come from
# system include directories, so they do not trip -Werror.
function(vt_own_code target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${VT_WERROR}>>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${VT_WERROR}>>:-Werror=all-warnings>)
endfunction()
