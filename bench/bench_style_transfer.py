"""TensorFlow's style transfer and DeepDream tutorials' steps: rivulet vs TensorFlow side by side (and an older
rivulet).

    python bench/bench_style_transfer.py [style_transfer deepdream] [--tf PYTHON] [--before SRC] [--rounds N]
                                         [--busy N]

Workload (random weights and images, fixed seeds: the tutorial's FLOPs without its downloads):
  style_transfer  generative/style_transfer.ipynb's train_step (a tf.function): VGG19(include_top=False,
                  weights=None) up to block5_conv2 on a 1x422x512x3 image, the Gram matrices of five conv
                  layers (tf.linalg.einsum('bijc,bijd->bcd')), the style and content losses, total variation,
                  GradientTape with respect to the image (a tf.Variable), Adam(0.02, beta_1=0.99, epsilon=0.1)
                  on it, clip to [0, 1]. One step a run.
  deepdream       generative/deepdream.ipynb's DeepDream module (a tf.function over [None, None, 3] images with a
                  tf.range loop of gradient ascent steps): InceptionV3(include_top=False, weights=None), the mean
                  activations of mixed3 and mixed5 of a 412x500 image, the gradient normalised by its standard
                  deviation. Five steps (one call) a run.

Each backend is one worker process (this file with --child) that builds the workload and runs it once to warm
up; then the rounds alternate rivulet / (the older rivulet) / TensorFlow. A figure is the minimum over the rounds
in ms, wall time and the worker's CPU time; the ratios are TensorFlow's / rivulet's (> 1: rivulet is faster),
their range over the rounds in brackets. --before SRC adds a worker importing rivulet from SRC (an older src/
folder, e.g. `git archive` of an earlier commit) for before/after figures; --busy N runs N spinning processes.
"""
from sidebyside import main_wall_cpu, serve, timed_cpu

WORKLOADS = ("style_transfer", "deepdream")
CONTENT_LAYERS = ["block5_conv2"]
STYLE_LAYERS = ["block1_conv1", "block2_conv1", "block3_conv1", "block4_conv1", "block5_conv1"]


def _style_transfer(tf, np):
    def vgg_layers(layer_names):
        vgg = tf.keras.applications.VGG19(include_top=False, weights=None)
        vgg.trainable = False
        return tf.keras.Model([vgg.input], [vgg.get_layer(name).output for name in layer_names])

    def gram_matrix(input_tensor):
        result = tf.linalg.einsum("bijc,bijd->bcd", input_tensor, input_tensor)
        input_shape = tf.shape(input_tensor)
        return result / tf.cast(input_shape[1] * input_shape[2], tf.float32)

    class StyleContentModel(tf.keras.models.Model):
        def __init__(self, style_layers, content_layers):
            super().__init__()
            self.vgg = vgg_layers(style_layers + content_layers)
            self.style_layers, self.content_layers = style_layers, content_layers
            self.num_style_layers = len(style_layers)
            self.vgg.trainable = False

        def call(self, inputs):
            inputs = inputs * 255.0
            outputs = self.vgg(tf.keras.applications.vgg19.preprocess_input(inputs))
            style_outputs, content_outputs = outputs[:self.num_style_layers], outputs[self.num_style_layers:]
            style_outputs = [gram_matrix(s) for s in style_outputs]
            return {"content": dict(zip(self.content_layers, content_outputs)),
                    "style": dict(zip(self.style_layers, style_outputs))}

    tf.keras.utils.set_random_seed(0)
    extractor = StyleContentModel(STYLE_LAYERS, CONTENT_LAYERS)
    content_image = tf.constant(np.random.RandomState(0).rand(1, 422, 512, 3).astype(np.float32))
    style_image = tf.constant(np.random.RandomState(1).rand(1, 422, 512, 3).astype(np.float32))
    style_targets = extractor(style_image)["style"]
    content_targets = extractor(content_image)["content"]
    image = tf.Variable(content_image)
    opt = tf.keras.optimizers.Adam(learning_rate=0.02, beta_1=0.99, epsilon=1e-1)
    style_weight, content_weight, total_variation_weight = 1e-2, 1e4, 30

    def style_content_loss(outputs):
        style_outputs, content_outputs = outputs["style"], outputs["content"]
        style_loss = tf.add_n([tf.reduce_mean((style_outputs[name] - style_targets[name]) ** 2)
                               for name in style_outputs.keys()])
        style_loss *= style_weight / len(STYLE_LAYERS)
        content_loss = tf.add_n([tf.reduce_mean((content_outputs[name] - content_targets[name]) ** 2)
                                 for name in content_outputs.keys()])
        content_loss *= content_weight / len(CONTENT_LAYERS)
        return style_loss + content_loss

    @tf.function()
    def train_step(image):
        with tf.GradientTape() as tape:
            outputs = extractor(image)
            loss = style_content_loss(outputs)
            loss += total_variation_weight * tf.image.total_variation(image)
        grad = tape.gradient(loss, image)
        opt.apply_gradients([(grad, image)])
        image.assign(tf.clip_by_value(image, clip_value_min=0.0, clip_value_max=1.0))

    def run():
        train_step(image)
        image.numpy()
    return timed_cpu(run)


def _deepdream(tf, np):
    tf.keras.utils.set_random_seed(0)
    base_model = tf.keras.applications.InceptionV3(include_top=False, weights=None)
    dream_model = tf.keras.Model(inputs=base_model.input,
                                 outputs=[base_model.get_layer(name).output for name in ["mixed3", "mixed5"]])

    def calc_loss(img, model):
        layer_activations = model(tf.expand_dims(img, axis=0))
        if len(layer_activations) == 1:
            layer_activations = [layer_activations]
        return tf.reduce_sum([tf.math.reduce_mean(act) for act in layer_activations])

    class DeepDream(tf.Module):
        def __init__(self, model):
            self.model = model

        @tf.function(input_signature=(tf.TensorSpec(shape=[None, None, 3], dtype=tf.float32),
                                      tf.TensorSpec(shape=[], dtype=tf.int32),
                                      tf.TensorSpec(shape=[], dtype=tf.float32)))
        def __call__(self, img, steps, step_size):
            loss = tf.constant(0.0)
            for _ in tf.range(steps):
                with tf.GradientTape() as tape:
                    tape.watch(img)
                    loss = calc_loss(img, self.model)
                gradients = tape.gradient(loss, img)
                gradients /= tf.math.reduce_std(gradients) + 1e-8
                img = img + gradients * step_size
                img = tf.clip_by_value(img, -1, 1)
            return loss, img

    deepdream = DeepDream(dream_model)
    img = tf.constant(np.random.RandomState(0).uniform(-1, 1, (412, 500, 3)).astype(np.float32))
    steps, step_size = tf.constant(5), tf.constant(0.01)

    def run():
        loss, out = deepdream(img, steps, step_size)
        out.numpy()
    return timed_cpu(run)


def child(backend, names):
    serve(backend, {"style_transfer": _style_transfer, "deepdream": _deepdream}, names)


def main(argv=None):
    main_wall_cpu(__file__, __doc__, WORKLOADS, child, "ms a run", argv)


if __name__ == "__main__":
    main()
