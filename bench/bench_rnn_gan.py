"""Recurrent GAN training steps under two tapes: rivulet vs TensorFlow side by side (and an older rivulet).

    python bench/bench_rnn_gan.py [gan gan-eager wgan-gp] [--tf PYTHON] [--before SRC] [--rounds N]

Workloads (synthetic data, fixed seeds; 5 training steps a run):
  gan        TensorFlow's DCGAN tutorial step with recurrent nets, as a tf.function: one GradientTape per net
             (gen_tape, disc_tape, both recording the whole step); generator LSTM(64, return_sequences) ->
             Dense(8) on noise [64, 32, 16], critic LSTM(64) -> Dense(1) on [64, 32, 8]; Adam, binary
             cross-entropy from logits
  gan-eager  the same step run eagerly
  wgan-gp    a WGAN-GP critic step (tf.function): critic LSTM(64) -> Dense(1) on real and fake [64, 32, 8], the
             gradient penalty of its gradient at interpolates (a second-order gradient through the LSTM); Adam

Each backend is one worker process (this file with --child) that builds the workloads and runs each once to
warm up; then the rounds alternate rivulet / (the older rivulet) / TensorFlow. A figure is the minimum over the
rounds in ms, wall time and the worker's CPU time; the ratios are TensorFlow's / rivulet's (> 1: rivulet is
faster), their range over the rounds in brackets. --before SRC adds a worker importing rivulet from SRC (an
older src/ folder, e.g. `git archive` of an earlier commit) for before/after figures.
"""
from sidebyside import main_wall_cpu, serve, timed_cpu

WORKLOADS = ("gan", "gan-eager", "wgan-gp")
STEPS = 5


def _nets(tf, np):
    layers = tf.keras.layers
    tf.keras.utils.set_random_seed(1)
    gen = tf.keras.Sequential([tf.keras.Input((32, 16)), layers.LSTM(64, return_sequences=True), layers.Dense(8)])
    disc = tf.keras.Sequential([tf.keras.Input((32, 8)), layers.LSTM(64), layers.Dense(1)])
    rng = np.random.default_rng(0)
    noise = tf.constant(rng.standard_normal((64, 32, 16)).astype(np.float32))
    real = tf.constant(rng.standard_normal((64, 32, 8)).astype(np.float32))
    return gen, disc, noise, real


def _gan_step(tf, np, traced):
    gen, disc, noise, real = _nets(tf, np)
    opt_g, opt_d = tf.keras.optimizers.Adam(1e-4), tf.keras.optimizers.Adam(1e-4)
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)

    def step():
        with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
            fake = gen(noise, training=True)
            real_out, fake_out = disc(real, training=True), disc(fake, training=True)
            gen_loss = bce(tf.ones_like(fake_out), fake_out)
            disc_loss = bce(tf.ones_like(real_out), real_out) + bce(tf.zeros_like(fake_out), fake_out)
        opt_g.apply_gradients(zip(gen_tape.gradient(gen_loss, gen.trainable_variables), gen.trainable_variables))
        opt_d.apply_gradients(zip(disc_tape.gradient(disc_loss, disc.trainable_variables), disc.trainable_variables))
        return gen_loss
    f = tf.function(step) if traced else step

    def run():
        for _ in range(STEPS):
            loss = f()
        float(loss)
    return timed_cpu(run)


def _wgan_gp(tf, np):
    gen, disc, noise, real = _nets(tf, np)
    opt = tf.keras.optimizers.Adam(1e-4)
    fake = gen(noise)
    alpha = tf.constant(np.random.default_rng(1).random((64, 1, 1)).astype(np.float32))

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            mixed = real + alpha * (fake - real)
            with tf.GradientTape() as gp_tape:
                gp_tape.watch(mixed)
                pred = disc(mixed, training=True)
            g = gp_tape.gradient(pred, mixed)
            gp = tf.reduce_mean((tf.norm(tf.reshape(g, [64, -1]), axis=1) - 1.0) ** 2)
            loss = tf.reduce_mean(disc(fake, training=True)) - tf.reduce_mean(disc(real, training=True)) + 10 * gp
        opt.apply_gradients(zip(tape.gradient(loss, disc.trainable_variables), disc.trainable_variables))
        return loss

    def run():
        for _ in range(STEPS):
            loss = step()
        float(loss)
    return timed_cpu(run)


def child(backend, names):
    serve(backend, {"gan": lambda tf, np: _gan_step(tf, np, True), "gan-eager": lambda tf, np: _gan_step(tf, np, False),
                    "wgan-gp": _wgan_gp}, names)


def main(argv=None):
    main_wall_cpu(__file__, __doc__, WORKLOADS, child, f"{STEPS} training steps, ms", argv)


if __name__ == "__main__":
    main()
