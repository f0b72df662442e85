import rivulet as tf


def my_function(x):
    if tf.reduce_sum(x) <= 1:
        return x * x
    else:
        return x - 1


def test_to_code_has_tensorflow_shape():
    code = tf.autograph.to_code(my_function)
    lines = code.splitlines()
    assert lines[0] == "def tf__my_function(x):"
    assert lines[1] == ("    with ag__.FunctionScope('my_function', 'fscope', ag__.ConversionOptions(recursive=True, "
                        "user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:")
    for expected in ["        do_return = False", "        retval_ = ag__.UndefinedReturnValue()",
                     "        def get_state():", "            return (do_return, retval_)",
                     "        def set_state(vars_):", "            nonlocal do_return, retval_",
                     "            do_return, retval_ = vars_", "        def if_body():", "        def else_body():",
                     "                retval_ = ag__.ld(x) * ag__.ld(x)", "                retval_ = ag__.ld(x) - 1",
                     "        ag__.if_stmt(ag__.converted_call(ag__.ld(tf).reduce_sum, (ag__.ld(x),), None, fscope) "
                     "<= 1, if_body, else_body, get_state, set_state, ('do_return', 'retval_'), 2)",
                     "        return fscope.ret(retval_, do_return)"]:
        assert expected in lines, expected
    assert code.endswith("\n")


def test_to_code_of_loops_and_logic():
    def f(x):
        s = 0
        for i in tf.range(x):
            if i > 2 and s < 10:
                break
            s += i
        while s > 0:
            s -= 1
        return not s
    code = tf.autograph.to_code(f)
    assert "ag__.for_stmt(ag__.converted_call(ag__.ld(tf).range, (ag__.ld(x),), None, fscope), extra_test, " \
           "loop_body, " in code
    assert "{'iterate_names': 'i'}" in code
    assert "def loop_body(itr):" in code and "i = itr" in code
    assert "break_ = True" in code and "return ag__.not_(break_)" in code
    assert "ag__.and_(lambda: ag__.ld(i) > 2, lambda: ag__.ld(s) < 10)" in code
    assert "ag__.while_stmt(loop_test, loop_body_1, " in code
    assert "retval_ = ag__.not_(ag__.ld(s))" in code
    compile(code, "<to_code>", "exec")


def test_to_code_of_a_tf_function_and_method():
    class M:
        def call(self, x):
            return x if x > 0 else -x
    code = tf.autograph.to_code(M().call)
    assert code.startswith("def tf__call(self, x):")
    assert "ag__.if_exp(ag__.ld(x) > 0, lambda: ag__.ld(x), lambda: -ag__.ld(x), 'x > 0')" in code
    assert tf.autograph.to_code(tf.function(my_function)).startswith("def tf__my_function(x):")


def test_to_graph_returns_converted_function():
    g = tf.autograph.to_graph(my_function)
    assert g is not my_function
    assert g(tf.constant(1.0)).numpy() == 1.0
    assert tf.function(g)(tf.constant([5.0])).numpy().tolist() == [4.0]
